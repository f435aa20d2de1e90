export const team = {};
