import { TextInput } from '@mantine/core';
import type { SignT } from '../i18n.ts';
import { MAX_NAME_LENGTH, type Problem, problemText } from '../signer.ts';

/**
 * Who signs: their full name and identity document (DNI, NIE or passport), each with its problem
 * tied to it. `focusTarget` registers the control that takes focus when the field has a problem.
 */
export function SignerFields({
  name,
  idDocument,
  onChange,
  problems,
  focusTarget,
  t,
}: {
  name: string;
  idDocument: string;
  onChange: (change: { name: string } | { idDocument: string }) => void;
  problems: { name?: Problem | undefined; id_document?: Problem | undefined };
  focusTarget: (field: 'name' | 'id_document') => (el: HTMLElement | null) => void;
  t: SignT;
}) {
  return (
    <>
      <TextInput
        ref={focusTarget('name')}
        id="signer-name"
        size="lg"
        label={t('sign.signer.name')}
        autoComplete="name"
        maxLength={MAX_NAME_LENGTH}
        value={name}
        onChange={(e) => onChange({ name: e.currentTarget.value })}
        error={problemText(t, problems.name)}
        required
      />
      <TextInput
        ref={focusTarget('id_document')}
        id="signer-id-document"
        size="lg"
        label={t('sign.signer.idDocument')}
        description={t('sign.signer.idHint')}
        autoComplete="off"
        autoCapitalize="characters"
        spellCheck={false}
        maxLength={40}
        value={idDocument}
        onChange={(e) => onChange({ idDocument: e.currentTarget.value })}
        error={problemText(t, problems.id_document)}
        required
      />
    </>
  );
}
