import { Code, Fieldset, PasswordInput, type PasswordInputProps, Stack, Text, TextInput, type TextInputProps } from '@mantine/core';
import type { UseFormReturnType } from '@mantine/form';
import { type Integration, UpdateIntegrationInput } from '@merma/schema/dashboard';
import type { TFunction } from 'i18next';
import { Fragment } from 'react';
import { useTranslation } from 'react-i18next';

/**
 * The fields of a Square or Odoo integration, shared by the forms that connect one and the form
 * that edits it. Credentials (Square's signature key and access token, Odoo's API key) are
 * write-only: the field starts empty and an empty field keeps what is stored.
 */
export type SquareValues = { name: string; signature_key: string; access_token: string; location_id: string };
export type OdooValues = { name: string; odoo_url: string; database: string; login: string; api_key: string; company_id: string };

/** Odoo's company id as typed: digits only (an id, not an amount), or empty for any company. */
const COMPANY_ID = /^[1-9]\d{0,9}$/;
/** The company id to send: a number, or undefined when empty. */
export const companyOf = (value: string) => (value.trim() === '' ? undefined : Number(value.trim()));

const shape = UpdateIntegrationInput.shape;
const valid = (schema: { safeParse(v: unknown): { success: boolean } }, value: string) => schema.safeParse(value.trim()).success;

const nameRule = (t: TFunction) => (value: string) =>
  value.trim().length === 0 ? t('validation.required') : value.trim().length > 80 ? t('validation.tooLong', { max: 80 }) : null;

/** A credential: empty is fine when it is optional or already stored; otherwise the server's rule. */
export const credentialRule = (t: TFunction, required: boolean) => (value: string) => {
  if (value.trim() === '') return required ? t('validation.required') : null;
  return valid(shape.access_token, value) ? null : t('integrations.vendors.validation.credential', { ns: 'integrations' });
};

/**
 * A setting the server keeps once it is given (it has no way to clear it): emptying a stored one is
 * refused here rather than silently ignored.
 */
const keptSetting = (t: TFunction, stored: string | undefined) => (value: string) =>
  stored && value.trim() === '' ? t('integrations.vendors.validation.cannotClear', { ns: 'integrations' }) : null;

export function squareRules(t: TFunction, current?: Integration) {
  return {
    name: nameRule(t),
    signature_key: credentialRule(t, false),
    access_token: credentialRule(t, false),
    location_id: (value: string) =>
      keptSetting(t, current?.settings.location_id)(value) ??
      (value.trim() === '' || valid(shape.location_id, value)
        ? null
        : t('integrations.vendors.validation.locationId', { ns: 'integrations' })),
  };
}

export function odooRules(t: TFunction, current?: Integration) {
  const stored = current?.settings ?? {};
  /** Reading Odoo needs all four: the address, the database, the login and the API key (stored or typed). */
  const missing = (values: OdooValues, field: keyof OdooValues) => {
    const given = {
      odoo_url: values.odoo_url.trim() !== '',
      database: values.database.trim() !== '',
      login: values.login.trim() !== '',
      api_key: values.api_key.trim() !== '' || Boolean(current?.api_credential_set),
    };
    return Object.values(given).some(Boolean) && !given[field as keyof typeof given]
      ? t('integrations.vendors.validation.allFour', { ns: 'integrations' })
      : null;
  };
  return {
    name: nameRule(t),
    odoo_url: (value: string, values: OdooValues) =>
      keptSetting(t, stored.url)(value) ??
      missing(values, 'odoo_url') ??
      (value.trim() === '' || valid(shape.odoo_url, value) ? null : t('validation.url')),
    database: (value: string, values: OdooValues) =>
      keptSetting(t, stored.database)(value) ??
      missing(values, 'database') ??
      (value.trim().length > 200 ? t('validation.tooLong', { max: 200 }) : null),
    login: (value: string, values: OdooValues) =>
      keptSetting(t, stored.login)(value) ??
      missing(values, 'login') ??
      (value.trim().length > 200 ? t('validation.tooLong', { max: 200 }) : null),
    api_key: (value: string, values: OdooValues) => missing(values, 'api_key') ?? credentialRule(t, false)(value),
    company_id: (value: string) =>
      value.trim() === '' || (COMPANY_ID.test(value.trim()) && Number(value.trim()) <= 2_147_483_647)
        ? null
        : t('integrations.vendors.validation.companyId', { ns: 'integrations' }),
  };
}

type WriteOnlyFieldProps = Omit<PasswordInputProps, 'placeholder' | 'autoComplete'> & {
  /** Whether a value is stored (said in the placeholder, with "an empty field keeps it"); undefined where nothing can be stored yet. */
  stored?: boolean;
};

/**
 * A credential's field (an access token, a signature key, an API key): masked, never filled in by the
 * browser, and never showing the stored value, only whether one is stored.
 */
export function WriteOnlyField({ stored, ...props }: WriteOnlyFieldProps) {
  const { t } = useTranslation('integrations');
  const placeholder =
    stored === undefined ? undefined : stored ? t('integrations.vendors.fields.storedKeep') : t('integrations.vendors.fields.notSet');
  return <PasswordInput placeholder={placeholder} autoComplete="off" {...props} />;
}

/** An integration's name, the first field of every vendor's form. */
function NameField({ placeholder, ...props }: TextInputProps & { placeholder: string }) {
  const { t } = useTranslation('integrations');
  return (
    <TextInput
      label={t('integrations.vendors.fields.name')}
      description={t('integrations.vendors.fields.nameHint')}
      placeholder={placeholder}
      required
      data-autofocus
      {...props}
    />
  );
}

/** The given text with its `backticked` parts as code (message files mark names of fields, models and events so). */
export function CodeText({ text }: { text: string }) {
  return (
    <>
      {text.split('`').map((part, i) =>
        // biome-ignore lint/suspicious/noArrayIndexKey: the parts of one fixed message, never reordered
        i % 2 === 1 ? <Code key={i}>{part}</Code> : <Fragment key={i}>{part}</Fragment>,
      )}
    </>
  );
}

export function SquareFields({ form, current }: { form: UseFormReturnType<SquareValues>; current?: Integration }) {
  const { t } = useTranslation('integrations');
  return (
    <Stack gap="md">
      <NameField placeholder={t('integrations.vendors.fields.squareNamePlaceholder')} {...form.getInputProps('name')} />
      <WriteOnlyField
        label={t('integrations.vendors.fields.accessToken')}
        description={t('integrations.vendors.fields.accessTokenHint')}
        stored={current?.api_credential_set}
        {...form.getInputProps('access_token')}
      />
      <TextInput
        label={t('integrations.vendors.fields.locationId')}
        description={t('integrations.vendors.fields.locationIdHint')}
        // i18n-ignore: the shape of a Square location id, the same in every language
        placeholder="L8X2QBJ4GMCYP"
        autoComplete="off"
        {...form.getInputProps('location_id')}
      />
      <WriteOnlyField
        label={t('integrations.vendors.fields.signatureKey')}
        description={
          current?.signature_key_set
            ? t('integrations.vendors.fields.signatureKeyEditHint')
            : t('integrations.vendors.fields.signatureKeyHint')
        }
        stored={current?.signature_key_set}
        {...form.getInputProps('signature_key')}
      />
    </Stack>
  );
}

export function OdooFields({ form, current }: { form: UseFormReturnType<OdooValues>; current?: Integration }) {
  const { t } = useTranslation('integrations');
  return (
    <Stack gap="md">
      <NameField placeholder={t('integrations.vendors.fields.odooNamePlaceholder')} {...form.getInputProps('name')} />
      <TextInput
        label={t('integrations.vendors.fields.companyId')}
        description={t('integrations.vendors.fields.companyIdHint')}
        inputMode="numeric"
        autoComplete="off"
        {...form.getInputProps('company_id')}
      />
      <Fieldset legend={t('integrations.vendors.fields.odooApi')} variant="filled">
        <Stack gap="md">
          <Text size="sm" c="dimmed">
            <CodeText text={t('integrations.vendors.fields.odooApiHint')} />
          </Text>
          <TextInput
            label={t('integrations.vendors.fields.odooUrl')}
            placeholder="https://mycompany.odoo.com"
            type="url"
            autoComplete="off"
            {...form.getInputProps('odoo_url')}
          />
          <TextInput label={t('integrations.vendors.fields.database')} autoComplete="off" {...form.getInputProps('database')} />
          <TextInput label={t('integrations.vendors.fields.login')} autoComplete="off" {...form.getInputProps('login')} />
          <WriteOnlyField
            label={t('integrations.vendors.fields.apiKey')}
            description={t('integrations.vendors.fields.apiKeyHint')}
            stored={current?.api_credential_set}
            {...form.getInputProps('api_key')}
          />
        </Stack>
      </Fieldset>
    </Stack>
  );
}

/** `value` trimmed, or undefined when empty (an empty write-only field keeps the stored value). */
export const given = (value: string) => (value.trim() === '' ? undefined : value.trim());

/** A setting that differs from the stored one, or undefined (nothing to change). */
export const changed = (value: string, stored: string | undefined) => {
  const v = value.trim();
  return v === '' || v === (stored ?? '') ? undefined : v;
};

/** What editing sends: the settings that differ from the stored ones and the credentials typed (undefined: unchanged). */
export type IntegrationChanges = Omit<UpdateIntegrationInput, 'establishment_id' | 'livemode' | 'id'>;

export const squareChanges = (v: SquareValues, current: Integration): IntegrationChanges => ({
  name: changed(v.name, current.name),
  signature_key: given(v.signature_key),
  access_token: given(v.access_token),
  location_id: changed(v.location_id, current.settings.location_id),
});

export const odooChanges = (v: OdooValues, current: Integration): IntegrationChanges => ({
  name: changed(v.name, current.name),
  odoo_url: changed(v.odoo_url, current.settings.url),
  database: changed(v.database, current.settings.database),
  login: changed(v.login, current.settings.login),
  api_key: given(v.api_key),
  // Emptied: any company again (null); unchanged: not sent.
  company_id:
    companyOf(v.company_id) === current.settings.company_id
      ? undefined
      : (companyOf(v.company_id) ?? (current.settings.company_id === undefined ? undefined : null)),
});
