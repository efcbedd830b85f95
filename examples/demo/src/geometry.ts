function area(w: number, h: number): number { return w * h; }
export const big = area(10, 20);
