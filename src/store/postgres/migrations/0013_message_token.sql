-- Every recipient record carries its own token (the open pixel, tracked links and unsubscribe links
-- of its own copy). Records written before have none: their copies used the job's token.
ALTER TABLE messages ADD COLUMN token text;
