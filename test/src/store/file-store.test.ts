import { tmpDir } from '../../helpers/tmp.js';
import { FileStore } from '../../../src/store/file/file-store.js';
import { storeConformance } from './conformance/index.js';

storeConformance<string>({
  name: 'file',
  backing: (t) => tmpDir(t),
  open: (dir) => FileStore.open(dir, 'serve'),
});
