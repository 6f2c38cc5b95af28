import { expect } from 'chai';
import { agentLinkUrl, normaliseControllerUrl } from '../../../agent/link/controller-url.js';

describe('controller URL', () => {
  it('maps http(s) to ws(s) and appends /agent/v1 once', () => {
    expect(agentLinkUrl('https://ctl.example.com')).to.equal('wss://ctl.example.com/agent/v1');
    expect(agentLinkUrl('http://10.0.0.5:8080/')).to.equal('ws://10.0.0.5:8080/agent/v1');
    expect(agentLinkUrl('https://example.com/ticketnet/')).to.equal('wss://example.com/ticketnet/agent/v1');
    expect(agentLinkUrl('wss://ctl.example.com/agent/v1')).to.equal('wss://ctl.example.com/agent/v1');
  });

  it('refuses other schemes and credentials', () => {
    expect(() => agentLinkUrl('ftp://x')).to.throw(TypeError);
    expect(() => agentLinkUrl('not a url')).to.throw(TypeError);
    expect(() => agentLinkUrl('https://user:pw@ctl.example.com')).to.throw(/credentials/);
  });

  it('stores a plain base URL', () => {
    expect(normaliseControllerUrl('wss://ctl.example.com/agent/v1')).to.equal('https://ctl.example.com');
    expect(normaliseControllerUrl('http://127.0.0.1:3000/')).to.equal('http://127.0.0.1:3000');
  });
});
