-- Counts kept beside the rows they count, by the database itself: a page of messages or
-- subscribers says its total, and a list its size, by reading a row instead of counting a million.
-- Triggers keep them in every write (accept, an outcome, a purge, an import), so no code path can
-- forget one. SQLite only: its one writer makes a count row no one's bottleneck; on Postgres every
-- daemon's transactions would queue on it (there the pages count).
CREATE TABLE message_counts (
  workspace_id text NOT NULL,
  status text NOT NULL,
  n integer NOT NULL,
  PRIMARY KEY (workspace_id, status)
) WITHOUT ROWID;
INSERT INTO message_counts (workspace_id, status, n) SELECT workspace_id, status, count(*) FROM messages GROUP BY workspace_id, status;

CREATE TRIGGER message_counted AFTER INSERT ON messages BEGIN
  INSERT INTO message_counts (workspace_id, status, n) VALUES (new.workspace_id, new.status, 1)
    ON CONFLICT (workspace_id, status) DO UPDATE SET n = n + 1;
END;
CREATE TRIGGER message_uncounted AFTER DELETE ON messages BEGIN
  UPDATE message_counts SET n = n - 1 WHERE workspace_id = old.workspace_id AND status = old.status;
END;
CREATE TRIGGER message_recounted AFTER UPDATE OF status ON messages WHEN old.status IS NOT new.status BEGIN
  UPDATE message_counts SET n = n - 1 WHERE workspace_id = old.workspace_id AND status = old.status;
  INSERT INTO message_counts (workspace_id, status, n) VALUES (new.workspace_id, new.status, 1)
    ON CONFLICT (workspace_id, status) DO UPDATE SET n = n + 1;
END;

CREATE TABLE subscriber_counts (
  list_id text NOT NULL,
  status text NOT NULL,
  n integer NOT NULL,
  PRIMARY KEY (list_id, status)
) WITHOUT ROWID;
INSERT INTO subscriber_counts (list_id, status, n) SELECT list_id, status, count(*) FROM subscribers GROUP BY list_id, status;

CREATE TRIGGER subscriber_counted AFTER INSERT ON subscribers BEGIN
  INSERT INTO subscriber_counts (list_id, status, n) VALUES (new.list_id, new.status, 1)
    ON CONFLICT (list_id, status) DO UPDATE SET n = n + 1;
END;
CREATE TRIGGER subscriber_uncounted AFTER DELETE ON subscribers BEGIN
  UPDATE subscriber_counts SET n = n - 1 WHERE list_id = old.list_id AND status = old.status;
END;
CREATE TRIGGER subscriber_recounted AFTER UPDATE OF status, list_id ON subscribers
  WHEN old.status IS NOT new.status OR old.list_id IS NOT new.list_id BEGIN
  UPDATE subscriber_counts SET n = n - 1 WHERE list_id = old.list_id AND status = old.status;
  INSERT INTO subscriber_counts (list_id, status, n) VALUES (new.list_id, new.status, 1)
    ON CONFLICT (list_id, status) DO UPDATE SET n = n + 1;
END;
