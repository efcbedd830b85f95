export class UserService {
  private users = new Map<number, string>();

  findById(id: number): string | undefined {
    return this.users.get(id);
  }
}
