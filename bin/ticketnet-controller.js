#!/usr/bin/env node
import '../dist/controller/cli.js';
