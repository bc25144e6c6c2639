/**
 * A path of this app (never another site): where to go after signing in. The router's form, without
 * the `/dashboard` base (`/records?mode=live`), as the app writes it in the sign-in page's `?redirect=`.
 */
export function isLocalPath(path: string) {
  return path.startsWith('/') && !path.startsWith('//') && !path.includes('\\');
}
