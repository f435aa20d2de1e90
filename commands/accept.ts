import { lifecycleCommand } from '../src/cli/lifecycle-command.js';

export default lifecycleCommand('accept');
