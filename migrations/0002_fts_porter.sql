-- Custom migration: memory-chunk FTS with Porter stemming and the tenant inside the index.
-- chunks_fts becomes a contentless FTS5 table (`porter unicode61`) with a second column holding one
-- token per tenant (`t` + hex of the tenant id), so that a search names its tenant in the MATCH
-- expression instead of filtering every tenant's matches after it. The chunks table is untouched;
-- the index is rebuilt from it. messages_fts is rebuilt with the same tokenizer.
DROP TRIGGER `chunks_fts_ai`;
--> statement-breakpoint
DROP TRIGGER `chunks_fts_ad`;
--> statement-breakpoint
DROP TRIGGER `chunks_fts_au`;
--> statement-breakpoint
DROP TABLE `chunks_fts`;
--> statement-breakpoint
CREATE VIRTUAL TABLE `chunks_fts` USING fts5(`text`, `tenant_key`, content='', tokenize='porter unicode61');
--> statement-breakpoint
INSERT INTO `chunks_fts`(rowid, `text`, `tenant_key`) SELECT `pk`, `text`, 't' || lower(hex(`tenant`)) FROM `chunks`;
--> statement-breakpoint
CREATE TRIGGER `chunks_fts_ai` AFTER INSERT ON `chunks` BEGIN
  INSERT INTO `chunks_fts`(rowid, `text`, `tenant_key`) VALUES (new.`pk`, new.`text`, 't' || lower(hex(new.`tenant`)));
END;
--> statement-breakpoint
CREATE TRIGGER `chunks_fts_ad` AFTER DELETE ON `chunks` BEGIN
  INSERT INTO `chunks_fts`(`chunks_fts`, rowid, `text`, `tenant_key`) VALUES ('delete', old.`pk`, old.`text`, 't' || lower(hex(old.`tenant`)));
END;
--> statement-breakpoint
CREATE TRIGGER `chunks_fts_au` AFTER UPDATE OF `text`, `tenant` ON `chunks` BEGIN
  INSERT INTO `chunks_fts`(`chunks_fts`, rowid, `text`, `tenant_key`) VALUES ('delete', old.`pk`, old.`text`, 't' || lower(hex(old.`tenant`)));
  INSERT INTO `chunks_fts`(rowid, `text`, `tenant_key`) VALUES (new.`pk`, new.`text`, 't' || lower(hex(new.`tenant`)));
END;
--> statement-breakpoint
DROP TRIGGER `messages_fts_ai`;
--> statement-breakpoint
DROP TRIGGER `messages_fts_ad`;
--> statement-breakpoint
DROP TABLE `messages_fts`;
--> statement-breakpoint
CREATE VIRTUAL TABLE `messages_fts` USING fts5(`text`, content='session_messages', content_rowid='pk', tokenize='porter unicode61');
--> statement-breakpoint
INSERT INTO `messages_fts`(`messages_fts`) VALUES ('rebuild');
--> statement-breakpoint
CREATE TRIGGER `messages_fts_ai` AFTER INSERT ON `session_messages` BEGIN
  INSERT INTO `messages_fts`(rowid, `text`) VALUES (new.`pk`, new.`text`);
END;
--> statement-breakpoint
CREATE TRIGGER `messages_fts_ad` AFTER DELETE ON `session_messages` BEGIN
  INSERT INTO `messages_fts`(`messages_fts`, rowid, `text`) VALUES ('delete', old.`pk`, old.`text`);
END;
