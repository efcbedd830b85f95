export function old(): string {
  return 'old';
}
