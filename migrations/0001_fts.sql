-- Custom migration (drizzle-kit generate --custom): FTS5 indexes for memory chunks and session
-- messages, as external-content tables kept in sync by triggers. Tokenizer: unicode61 (default).
CREATE VIRTUAL TABLE `chunks_fts` USING fts5(`text`, content='chunks', content_rowid='pk');
--> statement-breakpoint
CREATE TRIGGER `chunks_fts_ai` AFTER INSERT ON `chunks` BEGIN
  INSERT INTO `chunks_fts`(rowid, `text`) VALUES (new.`pk`, new.`text`);
END;
--> statement-breakpoint
CREATE TRIGGER `chunks_fts_ad` AFTER DELETE ON `chunks` BEGIN
  INSERT INTO `chunks_fts`(`chunks_fts`, rowid, `text`) VALUES ('delete', old.`pk`, old.`text`);
END;
--> statement-breakpoint
CREATE TRIGGER `chunks_fts_au` AFTER UPDATE OF `text` ON `chunks` BEGIN
  INSERT INTO `chunks_fts`(`chunks_fts`, rowid, `text`) VALUES ('delete', old.`pk`, old.`text`);
  INSERT INTO `chunks_fts`(rowid, `text`) VALUES (new.`pk`, new.`text`);
END;
--> statement-breakpoint
CREATE VIRTUAL TABLE `messages_fts` USING fts5(`text`, content='session_messages', content_rowid='pk');
--> statement-breakpoint
CREATE TRIGGER `messages_fts_ai` AFTER INSERT ON `session_messages` BEGIN
  INSERT INTO `messages_fts`(rowid, `text`) VALUES (new.`pk`, new.`text`);
END;
--> statement-breakpoint
CREATE TRIGGER `messages_fts_ad` AFTER DELETE ON `session_messages` BEGIN
  INSERT INTO `messages_fts`(`messages_fts`, rowid, `text`) VALUES ('delete', old.`pk`, old.`text`);
END;
