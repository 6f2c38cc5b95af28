import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { generateKeyPair } from '../../../protocol/index.js';
import {
  CONTROLLER_KEY_FILE,
  ControllerIdentityError,
  loadControllerIdentity,
} from '../../../controller/hub/controller-identity.js';

describe('controller identity', () => {
  it('is generated once into the data directory and read back on the next start', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tn-key-'));
    const first = await loadControllerIdentity(dir);
    const stored = JSON.parse(readFileSync(join(dir, CONTROLLER_KEY_FILE), 'utf8'));
    expect(stored).to.deep.equal(first);
    expect(await loadControllerIdentity(dir)).to.deep.equal(first);
  });

  it('refuses a file whose halves do not belong together, or that is not JSON', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tn-key-'));
    const path = join(dir, CONTROLLER_KEY_FILE);
    writeFileSync(path, JSON.stringify({ ...generateKeyPair(), publicKey: generateKeyPair().publicKey }));
    const mismatch = await loadControllerIdentity(dir).catch((e: unknown) => e);
    expect(mismatch).to.be.instanceOf(ControllerIdentityError);
    writeFileSync(path, '{"publicKey":');
    const broken = await loadControllerIdentity(dir).catch((e: unknown) => e);
    expect(broken).to.be.instanceOf(ControllerIdentityError);
    expect((broken as Error).message).to.not.include('secretKey');
  });
});
