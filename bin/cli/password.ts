/**
 * Reading a password for `vigil user set-password`: never from the command line, where it would stay in the shell's
 * history and in every process listing. From a terminal it is asked for without echo (twice); piped, the first line
 * of standard input is read (`printf '%s\n' "$PW" | npx vigil user set-password <id>`).
 */
import { createInterface } from 'node:readline';
import { Writable } from 'node:stream';
import { CliError } from './client.ts';

async function firstLine(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  const text = Buffer.concat(chunks).toString('utf8');
  return text.split(/\r?\n/)[0] ?? '';
}

function ask(question: string): Promise<string> {
  // the answer is typed into a muted copy of stdout: nothing echoes
  let muted = false;
  const output = new Writable({
    write(chunk, _encoding, done) {
      if (!muted) process.stderr.write(chunk);
      done();
    },
  });
  const rl = createInterface({ input: process.stdin, output, terminal: true });
  return new Promise((resolve) => {
    rl.question(question, (answer) => {
      rl.close();
      process.stderr.write('\n');
      resolve(answer);
    });
    muted = true;
  });
}

export async function readPassword(): Promise<string> {
  if (!process.stdin.isTTY) {
    const line = await firstLine();
    if (!line) throw new CliError('no password on standard input: pipe it in, or run the command in a terminal to be asked for it.');
    return line;
  }
  const first = await ask('New password (at least 12 characters): ');
  const again = await ask('The same again: ');
  if (first !== again) throw new CliError('the two passwords differ; nothing was changed.');
  return first;
}
