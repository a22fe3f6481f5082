CREATE TABLE `chunks` (
	`pk` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`tenant` text NOT NULL,
	`id` text NOT NULL,
	`project` text DEFAULT '' NOT NULL,
	`user_id` text DEFAULT '' NOT NULL,
	`source` text NOT NULL,
	`start_line` integer NOT NULL,
	`end_line` integer NOT NULL,
	`text` text NOT NULL,
	`date` text,
	`embedding` text,
	`model` text,
	`dims` integer
);
--> statement-breakpoint
CREATE UNIQUE INDEX `chunks_id` ON `chunks` (`tenant`,`id`);--> statement-breakpoint
CREATE INDEX `chunks_source` ON `chunks` (`tenant`,`source`);--> statement-breakpoint
CREATE INDEX `chunks_model` ON `chunks` (`tenant`,`model`);--> statement-breakpoint
CREATE TABLE `documents` (
	`tenant` text NOT NULL,
	`path` text NOT NULL,
	`content` text NOT NULL,
	`updated_at` integer NOT NULL,
	PRIMARY KEY(`tenant`, `path`)
);
--> statement-breakpoint
CREATE TABLE `memories` (
	`tenant` text NOT NULL,
	`id` text NOT NULL,
	`project` text DEFAULT '' NOT NULL,
	`user_id` text DEFAULT '' NOT NULL,
	`type` text NOT NULL,
	`class` text NOT NULL,
	`title` text NOT NULL,
	`content` text NOT NULL,
	`pinned` integer DEFAULT false NOT NULL,
	`expires_at` integer,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	`last_surfaced_at` integer,
	PRIMARY KEY(`tenant`, `id`)
);
--> statement-breakpoint
CREATE INDEX `memories_scope` ON `memories` (`tenant`,`project`,`user_id`);--> statement-breakpoint
CREATE TABLE `session_messages` (
	`pk` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`tenant` text NOT NULL,
	`session_id` text NOT NULL,
	`seq` integer NOT NULL,
	`message_id` text NOT NULL,
	`role` text NOT NULL,
	`text` text NOT NULL,
	`message` text NOT NULL,
	`created_at` integer NOT NULL,
	`compacted` integer DEFAULT false NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `session_messages_seq` ON `session_messages` (`tenant`,`session_id`,`seq`);--> statement-breakpoint
CREATE TABLE `sessions` (
	`tenant` text NOT NULL,
	`id` text NOT NULL,
	`project` text DEFAULT '' NOT NULL,
	`title` text,
	`created_at` integer NOT NULL,
	`last_active` integer NOT NULL,
	`last_seq` integer DEFAULT 0 NOT NULL,
	`state` text NOT NULL,
	PRIMARY KEY(`tenant`, `id`)
);
--> statement-breakpoint
CREATE INDEX `sessions_tenant_project_active` ON `sessions` (`tenant`,`project`,`last_active`);--> statement-breakpoint
CREATE INDEX `sessions_last_active` ON `sessions` (`last_active`);