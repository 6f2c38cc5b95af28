import { expect } from 'chai';
import { FakeHub } from '../../support/fake-hub.js';
import { afterTest, cleanUp, startSim, startTestAgent, waitUntil } from './agent-harness.js';

describe('agent periodic reports', () => {
  afterEach(cleanUp);

  it('sends telemetry on its interval: cpu, memory, uptime, active hotspot sessions', async () => {
    const sim = await startSim({ seed: { hotspotUsers: 10, activeSessions: 4 } });
    const hub = await new FakeHub().start();
    afterTest(() => hub.stop());
    await startTestAgent({ hub, sim, enrol: true, reports: { telemetryIntervalMs: 100 } });
    const telemetry = () => [...hub.reports.values()].filter((r) => r.kind === 'telemetry');
    await waitUntil(() => telemetry().length >= 2, 5000, 'two telemetry reports');
    const data = telemetry()[0]!.data;
    expect(data).to.include({ router_reachable: true, active_hotspot_sessions: 4 });
    expect(data.cpu_load).to.be.within(0, 100);
    expect(data.free_memory_bytes).to.be.greaterThan(0);
    expect(data.uptime_seconds).to.be.a('number');
  });

  it('reports an unreachable router as telemetry data, not as a crash', async () => {
    const hub = await new FakeHub().start();
    afterTest(() => hub.stop());
    const agent = await startTestAgent({ hub, enrol: true });
    await waitUntil(() => agent.link.state === 'ready');
    await agent.reports.reportTelemetry();
    await waitUntil(() => [...hub.reports.values()].some((r) => r.kind === 'telemetry'));
    const report = [...hub.reports.values()].find((r) => r.kind === 'telemetry')!;
    expect(report.data).to.include({ router_reachable: false, fault_code: 'ROUTER_UNREACHABLE' });
    // No facts could be read, so none were invented.
    expect([...hub.reports.values()].some((r) => r.kind === 'facts')).to.equal(false);
  });
});
