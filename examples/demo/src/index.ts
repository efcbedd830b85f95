import { old } from './old';

console.log(old());
