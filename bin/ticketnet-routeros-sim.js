#!/usr/bin/env node
import '../dist/test/routeros-sim/main.js';
