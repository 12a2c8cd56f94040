import { Migration } from '@mikro-orm/migrations';

export class Migration20261124231014 extends Migration {

  override name = 'Migration20261124231014';

  override up(): void | Promise<void> {
    this.addSql(`alter table "cfg_outbound_configs" add "routing_key" text null;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "cfg_outbound_configs" drop column "routing_key";`);
  }

}
