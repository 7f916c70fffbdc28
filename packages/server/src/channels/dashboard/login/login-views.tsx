import { CodeField, CurrentPasswordField, Field, Notice, PostForm } from '../views/components.js';

export function LoginForm(props: { email?: string; error?: string | null; notice?: string | null }) {
  return (
    <>
      {props.notice ? <Notice kind="ok">{props.notice}</Notice> : null}
      {props.error ? <Notice kind="error">{props.error}</Notice> : null}
      <PostForm action="/dashboard/login" class="stack">
        <Field
          label="E-mail"
          name="email"
          type="email"
          autocomplete="username"
          required
          value={props.email ?? ''}
          maxLength={254}
        />
        <CurrentPasswordField label="Senha" name="password" />
        <button type="submit" class="button">
          Entrar
        </button>
      </PostForm>
      <p>
        <a href="/dashboard/login/esqueci">Esqueci minha senha</a>
      </p>
    </>
  );
}

export function CodeForm(props: { error?: string | null }) {
  return (
    <>
      <p>Digite o código de 6 dígitos do seu aplicativo autenticador.</p>
      {props.error ? <Notice kind="error">{props.error}</Notice> : null}
      <PostForm action="/dashboard/login/verificar" class="stack">
        <CodeField />
        <button type="submit" class="button">
          Verificar
        </button>
      </PostForm>
    </>
  );
}
