import { readdir, readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { expect } from 'chai';
import { generateKeyPair } from '../../../protocol/index.js';
import { writeFileAtomic } from '../../../agent/state/atomic-file.js';
import { IdentityFileError, IdentityStore } from '../../../agent/state/identity-store.js';
import type { Identity } from '../../../agent/state/identity-store.js';
import { Outbox } from '../../../agent/state/outbox.js';
import { cleanUp, tempStateDir } from './agent-harness.js';

function identity(): Identity {
  const pair = generateKeyPair();
  return {
    version: 1,
    agent_id: '7d1f6a6e-6f0b-4c1e-9a54-1d7f8f0b2c31',
    allocation_id: '0b6f2b8e-3f55-4a8e-bb39-0c3c6f2f9a10',
    controller_url: 'https://ctl.example.com',
    controller_key: generateKeyPair().publicKey,
    agent_public_key: pair.publicKey,
    agent_secret_key: pair.secretKey,
    enrolled_at: '2026-11-21T08:00:00.000Z',
  };
}

describe('agent state on disk', () => {
  afterEach(cleanUp);

  it('atomic write leaves no temp file and honours the mode', async () => {
    const dir = await tempStateDir();
    const path = join(dir, 'secret.json');
    await writeFileAtomic(path, 'one', { mode: 0o600 });
    await writeFileAtomic(path, 'two', { mode: 0o600 });
    expect(await readFile(path, 'utf8')).to.equal('two');
    expect((await stat(path)).mode & 0o777).to.equal(0o600);
    expect(await readdir(dir)).to.deep.equal(['secret.json']);
  });

  it('identity: round trip, absent, and refusal of a file whose keys do not match', async () => {
    const dir = await tempStateDir();
    const store = new IdentityStore(join(dir, 'identity.json'));
    expect(await store.load()).to.equal(undefined);
    const saved = identity();
    await store.save(saved);
    expect(await store.load()).to.deep.equal(saved);

    await writeFile(store.path, JSON.stringify({ ...saved, agent_public_key: generateKeyPair().publicKey }));
    let error: unknown;
    await store.load().catch((err: unknown) => (error = err));
    expect(error).to.be.instanceOf(IdentityFileError);

    await writeFile(store.path, '{ torn');
    error = undefined;
    await store.load().catch((err: unknown) => (error = err));
    expect(error).to.be.instanceOf(IdentityFileError);
  });

  it('outbox: ordered, survives reopening, deletes on ack, continues numbering', async () => {
    const dir = join(await tempStateDir(), 'outbox');
    const outbox = await Outbox.open(dir);
    const a = await outbox.add('telemetry', { n: 1 }, new Date());
    const b = await outbox.add('facts', { n: 2 }, new Date());
    const c = await outbox.add('event', { n: 3 }, new Date());

    const again = await Outbox.open(dir);
    expect(again.entries().map((e) => e.id)).to.deep.equal([a.id, b.id, c.id]);
    expect(await again.read(again.entries()[1]!)).to.deep.equal(b);
    expect(await again.remove([b.id, 'not-there'])).to.equal(1);
    const d = await again.add('event', { n: 4 }, new Date());
    expect((await Outbox.open(dir)).entries().map((e) => e.id)).to.deep.equal([a.id, c.id, d.id]);
    expect(await Outbox.count(dir)).to.equal(3);
  });

  it('outbox: drops the oldest beyond its limit, sets aside a corrupt file', async () => {
    const dir = join(await tempStateDir(), 'outbox');
    const outbox = await Outbox.open(dir, { maxEntries: 3 });
    const ids: string[] = [];
    for (let n = 0; n < 5; n++) ids.push((await outbox.add('telemetry', { n }, new Date())).id);
    expect(outbox.entries().map((e) => e.id)).to.deep.equal(ids.slice(2));

    const first = outbox.entries()[0]!;
    await writeFile(join(dir, first.file), 'garbage');
    expect(await outbox.read(first)).to.equal(undefined);
    expect(outbox.size).to.equal(2);
    expect((await readdir(dir)).filter((name) => name.endsWith('.corrupt'))).to.have.length(1);
  });
});
