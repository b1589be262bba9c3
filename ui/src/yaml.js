// A small YAML emitter for showing specs the server returns as JSON. It
// writes block style, quoting strings that YAML would read as something
// else, so its output can be pasted back into the create form.

const PLAIN = /^[A-Za-z_/.][A-Za-z0-9_ ./${}()=:,+-]*$/;
const RESERVED = /^(true|false|yes|no|on|off|null|~|y|n)$/i;

function scalar(v) {
  if (v === null || v === undefined) return 'null';
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  const s = String(v);
  if (s !== '' && PLAIN.test(s) && !RESERVED.test(s) && !/: |:$| #|^[-?]/.test(s) &&
      s.trim() === s) {
    return s;
  }
  return JSON.stringify(s);
}

function isEmpty(v) {
  return (Array.isArray(v) && v.length === 0) ||
    (v && typeof v === 'object' && !Array.isArray(v) && Object.keys(v).length === 0);
}

function lines(v, indent) {
  const pad = ' '.repeat(indent);
  if (Array.isArray(v)) {
    return v.flatMap((item) => {
      if (item && typeof item === 'object' && !isEmpty(item)) {
        const inner = lines(item, indent + 2);
        return [pad + '- ' + inner[0].trimStart(), ...inner.slice(1)];
      }
      return [pad + '- ' + (isEmpty(item) ? JSON.stringify(item) : scalar(item))];
    });
  }
  return Object.entries(v).flatMap(([k, val]) => {
    if (val && typeof val === 'object' && !isEmpty(val)) {
      return [`${pad}${scalar(k)}:`, ...lines(val, indent + 2)];
    }
    return [`${pad}${scalar(k)}: ${isEmpty(val) ? JSON.stringify(val) : scalar(val)}`];
  });
}

export function toYaml(value) {
  return lines(value, 0).join('\n') + '\n';
}
