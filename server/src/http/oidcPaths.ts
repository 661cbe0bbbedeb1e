/** Where single sign-on starts and where the identity provider sends the browser back. */
export const OIDC_LOGIN_PATH = '/auth/oidc/login';
export const OIDC_CALLBACK_PATH = '/auth/oidc/callback';
