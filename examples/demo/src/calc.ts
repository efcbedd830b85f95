export function invoice(prices: number[], rate: number): number {
  const subtotal: number = prices.reduce((sum, p) => sum + p, 0);
  const tax: number = subtotal * rate;
  const shipping = subtotal > 100 ? 0 : 5;
  const fees = tax + shipping;
  const total = subtotal + fees;
  return Math.round(total * 100) / 100;
}
