import type { MailLanguage } from '@merma/schema';
import type { Role } from '@merma/schema/dashboard';
import type { Mail } from '../../mail.js';

/**
 * The invitation e-mail, sent by the team page and by `merma-admin org create --admin-email`.
 *
 * The inviter's name and the organisation's name are typed by customers: put in the subject or the
 * opening line they would read as Merma's own words ("Your account is suspended, verify at …"), a
 * phishing channel through our mail server. So the subject and the first line are fixed text (the
 * role is one of four words), and the names come after, each on a line of its own, between
 * quotation marks, with their line breaks and control or direction-changing characters flattened
 * so they cannot forge lines of their own, and a sentence saying that Merma did not write them.
 *
 * Written in the invitation's language (`invitations.language`): the inviter's dashboard language
 * when they invited (the invitee has no account, so no language of their own yet), Spanish for
 * operators' invitations (`merma-admin`) and when nothing says otherwise.
 */
export const INVITATION_SUBJECT = { en: 'You are invited to an organisation on Merma', es: 'Te han invitado a una organización en Merma' };
const ROLE_NAMES_ES: Record<Role, string> = { owner: 'propietario', admin: 'administrador', developer: 'desarrollador', viewer: 'lector' };
const MAX_QUOTED = 120;

/** A user-written name as one quoted line: no line breaks, control or bidi characters, at most 120 characters. */
export function quoted(text: string): string {
  // Controls (C0, DEL, C1), line and paragraph separators, bidi overrides and isolates, zero-width characters.
  const flat = text
    .replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029\u200b-\u200f\u202a-\u202e\u2066-\u2069\ufeff]+/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
  const cut = [...flat];
  return `“${cut.length > MAX_QUOTED ? `${cut.slice(0, MAX_QUOTED - 1).join('')}…` : flat}”`;
}

export function invitationMail(input: {
  to: string;
  organization: string;
  role: Role;
  invitedBy: string;
  link: string;
  language: MailLanguage;
}): Mail {
  const text =
    input.language === 'en'
      ? [
          `You have been invited to join an organisation on Merma, with the role ${input.role}.`,
          '',
          `Invited by: ${quoted(input.invitedBy)}`,
          `Organisation: ${quoted(input.organization)}`,
          '(These names were typed by the people who set up the organisation, not by Merma.)',
          '',
          'To accept, open this link within 7 days:',
          input.link,
          '',
          'If you did not expect this invitation, ignore this e-mail.',
        ]
      : [
          `Te han invitado a unirte a una organización en Merma, con el rol ${ROLE_NAMES_ES[input.role]}.`,
          '',
          `Invitación de: ${quoted(input.invitedBy)}`,
          `Organización: ${quoted(input.organization)}`,
          '(Estos nombres los escribieron quienes configuraron la organización, no Merma.)',
          '',
          'Para aceptar, abre este enlace antes de 7 días:',
          input.link,
          '',
          'Si no esperabas esta invitación, ignora este correo.',
        ];
  return { to: input.to, subject: INVITATION_SUBJECT[input.language], text: text.join('\n') };
}
