import { Migration } from '@mikro-orm/migrations';

export class Migration20261128215734 extends Migration {

  override name = 'Migration20261128215734';

  override up(): void | Promise<void> {
    this.addSql(`create index "alert_effects_organization_id_kind_at_index" on "alert_effects" ("organization_id", "kind", "at");`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop index "alert_effects_organization_id_kind_at_index";`);
  }

}
