import { PASSWORD_MAX_LENGTH, PASSWORD_MIN_LENGTH } from '../../../domain/accounts/passwords.js';
import { Field } from './components.js';

/** "Nova senha" and its confirmation, wherever a password is set (invite, Minha conta). */
export function PasswordFields(props: { error?: string | null }) {
  return (
    <>
      <Field
        label="Nova senha"
        name="password"
        type="password"
        autocomplete="new-password"
        required
        minLength={PASSWORD_MIN_LENGTH}
        maxLength={PASSWORD_MAX_LENGTH}
        hint={`Pelo menos ${PASSWORD_MIN_LENGTH} caracteres.`}
        error={props.error}
      />
      <Field
        label="Confirme a nova senha"
        name="confirmation"
        type="password"
        autocomplete="new-password"
        required
        maxLength={PASSWORD_MAX_LENGTH}
      />
    </>
  );
}
