import { describePresetProperties } from './harness.ts';

describePresetProperties('cowagent');
