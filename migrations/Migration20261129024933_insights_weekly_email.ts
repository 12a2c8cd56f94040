import { Migration } from '@mikro-orm/migrations';

export class Migration20261129024933_insights_weekly_email extends Migration {

  override name = 'Migration20261129024933_insights_weekly_email';

  override up(): void | Promise<void> {
    this.addSql(`alter table "cfg_organization_settings" add "insights_weekly_email" boolean null;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "cfg_organization_settings" drop column "insights_weekly_email";`);
  }

}
