import { Migration } from '@mikro-orm/migrations';

export class Migration20261129090847_paging_notifications_by_person extends Migration {

  override name = 'Migration20261129090847_paging_notifications_by_person';

  override up(): void | Promise<void> {
    this.addSql(`create index "paging_notifications_organization_id_email_method__b8264_index" on "paging_notifications" ("organization_id", "email", "method_key", "send_after");`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop index "paging_notifications_organization_id_email_method__b8264_index";`);
  }

}
