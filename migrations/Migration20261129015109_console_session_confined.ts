import { Migration } from '@mikro-orm/migrations';

export class Migration20261129015109_console_session_confined extends Migration {

  override name = 'Migration20261129015109_console_session_confined';

  override up(): void | Promise<void> {
    this.addSql(`alter table "console_sessions" add "confined_to" uuid null;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "console_sessions" drop column "confined_to";`);
  }

}
