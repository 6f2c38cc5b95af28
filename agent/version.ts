/** Version this agent build reports in enrol and hello. Bumped with the package version. */
export const AGENT_VERSION = '0.1.0';
