#!/usr/bin/env node
import '../dist/agent/cli.js';
