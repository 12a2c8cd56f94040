import { Migration } from '@mikro-orm/migrations';

export class Migration20261129045045_insights_weekly_mails_team extends Migration {

  override name = 'Migration20261129045045_insights_weekly_mails_team';

  override up(): void | Promise<void> {
    this.addSql(`alter table "insights_weekly_mails" drop constraint "insights_weekly_mails_pkey";`);
    this.addSql(`alter table "insights_weekly_mails" add "team_id" text not null default '';`);
    this.addSql(`alter table "insights_weekly_mails" add primary key ("organization_id", "team_id", "week");`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "insights_weekly_mails" drop constraint "insights_weekly_mails_pkey";`);
    this.addSql(`alter table "insights_weekly_mails" drop column "team_id";`);
    this.addSql(`alter table "insights_weekly_mails" add primary key ("organization_id", "week");`);
  }

}
