/**
 * CSV (RFC 4180) of flat records, for an operation that offers its answer as a spreadsheet (`csv` on the operation):
 * the header is every key in first-seen order, a missing or null value an empty cell, CRLF line ends. A cell that a
 * spreadsheet would run as a formula (starting with =, +, -, @, tab or CR) is prefixed with a quote (OWASP's advice
 * against CSV injection), unless it is a plain number.
 */
type Cell = string | number | boolean | null | undefined;

function cell(value: Cell): string {
  if (value === null || value === undefined) return '';
  let text = String(value);
  if (typeof value === 'string' && /^[=+\-@\t\r]/.test(text) && !/^[+-]?\d+(\.\d+)?$/.test(text)) text = `'${text}`;
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

export function toCsv(records: readonly Record<string, Cell>[]): string {
  const columns: string[] = [];
  const seen = new Set<string>();
  for (const r of records) for (const key of Object.keys(r)) if (!seen.has(key)) seen.add(key), columns.push(key);
  const lines = [columns.map(cell).join(','), ...records.map((r) => columns.map((c) => cell(r[c])).join(','))];
  return `${lines.join('\r\n')}\r\n`;
}
