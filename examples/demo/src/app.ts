import { readFileSync } from 'fs';
import { join, basename } from 'path';
import { UserService } from './user';

export const users = new UserService();
export const file = basename('x');
