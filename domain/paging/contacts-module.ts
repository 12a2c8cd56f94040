/**
 * Paging contacts: the contact_methods and notification_rules families (resources/), their verification by code
 * (contacts-verification.ts) and the plan a page follows for one person (contacts.ts, read by the escalation engine).
 */
import type { Module } from '../../engine/module.ts';
import contactMethods from '../../resources/contact_methods.ts';
import notificationRules from '../../resources/notification_rules.ts';
import { CONTACT_OPERATIONS, ContactVerificationEntity } from './contacts-verification.ts';

export const pagingContactsModule: Module = {
  name: 'paging-contacts',
  families: [contactMethods, notificationRules],
  entities: [ContactVerificationEntity],
  operations: CONTACT_OPERATIONS,
};
