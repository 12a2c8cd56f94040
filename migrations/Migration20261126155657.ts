import { Migration } from '@mikro-orm/migrations';

export class Migration20261126155657 extends Migration {

  override name = 'Migration20261126155657';

  override up(): void | Promise<void> {
    this.addSql(`create index "email_notices_organization_id_seq_index" on "email_notices" ("organization_id", "seq");`);

    this.addSql(`create index "investigations_organization_id_seq_index" on "investigations" ("organization_id", "seq");`);

    this.addSql(`drop index "timeline_entries_organization_id_occurred_at_index";`);
    this.addSql(`create index "timeline_entries_organization_id_occurred_at_seq_index" on "timeline_entries" ("organization_id", "occurred_at", "seq");`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop index "email_notices_organization_id_seq_index";`);

    this.addSql(`drop index "investigations_organization_id_seq_index";`);

    this.addSql(`drop index "timeline_entries_organization_id_occurred_at_seq_index";`);
    this.addSql(`create index "timeline_entries_organization_id_occurred_at_index" on "timeline_entries" ("organization_id", "occurred_at");`);
  }

}
