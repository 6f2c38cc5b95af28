// A controller with the technician hub: an administrator, technicians made experts, clients
// posting missions, and the jobs run on demand.
import { expect } from 'chai';
import type { TestController } from '../../support/test-controller.js';

export interface Tech {
  id: string;
  token: string;
  email: string;
}

export class Hub {
  adminToken = '';
  constructor(readonly t: TestController) {}

  async init(): Promise<this> {
    this.adminToken = (await this.t.admin()).token;
    return this;
  }

  /** A technician account with an expert record (active and certified unless said). */
  async expert(profile: Record<string, unknown> = {}): Promise<Tech> {
    const a = await this.t.account('technician');
    const res = await this.setExpert(a.id, { name: 'Tech', is_active: true, is_certified: true, ...profile });
    expect(res.status, JSON.stringify(res.body)).to.equal(201);
    return a;
  }

  setExpert(id: string, body: Record<string, unknown>) {
    return this.t.request('PUT', `/api/v1/admin/support/experts/${id}`, { token: this.adminToken, body });
  }

  async mission(clientToken: string, body: Record<string, unknown> = {}): Promise<string> {
    const res = await this.t.request('POST', '/support/api/tickets', {
      token: clientToken,
      body: { subject: 'Réseau coupé', description: 'Plus rien depuis ce matin', category: 'autre', ...body },
    });
    expect(res.status, JSON.stringify(res.body)).to.equal(201);
    return res.body.data.id as string;
  }

  claim(tech: Tech, id: string) {
    return this.t.request('POST', `/api/v1/support/tickets/${id}/claim`, { token: tech.token });
  }

  close(tech: Tech, id: string, resolved = true) {
    return this.t.request('POST', `/api/v1/support/tickets/${id}/close`, {
      token: tech.token,
      body: { resolved },
    });
  }

  async runJob(name: string) {
    let res = await this.t.request('POST', `/api/v1/admin/jobs/${name}/run`, { token: this.adminToken });
    if (res.status === 401) {
      // The clock moved past the token's 30 days.
      this.adminToken = (await this.t.admin()).token;
      res = await this.t.request('POST', `/api/v1/admin/jobs/${name}/run`, { token: this.adminToken });
    }
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    return res.body.data;
  }

  directory(query = '') {
    return this.t.request('GET', `/api/v1/support/professionals${query}`);
  }

  /** Fresh tokens after the clock moved past their 30 days. */
  async relogin(tech: Tech): Promise<Tech> {
    const res = await this.t.request('POST', '/api/v1/auth/login', {
      body: { email: tech.email, password: 'passw0rd-ok' },
    });
    this.adminToken = (await this.t.admin()).token;
    return { ...tech, token: res.body.data.token as string };
  }

  async inbox(tech: Tech) {
    const res = await this.t.request('GET', '/api/v1/notifications', { token: tech.token });
    return res.body.data as { type: string; data: Record<string, unknown> }[];
  }
}
