-- The rate limit counted per second: a sliding window of one-second buckets costs the
-- same whatever the limit, where a list of request times grew with it.
DROP FUNCTION svc_rate_hit(text, timestamptz, bigint, int);
DROP TABLE rate_windows;

CREATE TABLE rate_buckets (
  key_id text    NOT NULL,
  sec    bigint  NOT NULL,
  n      integer NOT NULL,
  PRIMARY KEY (key_id, sec)
);

-- Up to p_want requests of p_key at p_now: as many as fit under p_limit in the window of
-- p_window_ms are counted and granted; none fit: refused with the milliseconds until enough old
-- seconds leave it. The advisory lock makes the calls for one key (from any daemon) take turns.
CREATE FUNCTION svc_rate_hit(p_key text, p_now timestamptz, p_window_ms bigint, p_limit int, p_want int)
RETURNS TABLE (granted integer, retry_after_ms bigint) LANGUAGE plpgsql AS $$
DECLARE
  now_sec bigint := floor(extract(epoch FROM p_now));
  span bigint := ceil(p_window_ms / 1000.0);
  total bigint;
  left_n bigint;
  b record;
BEGIN
  PERFORM pg_advisory_xact_lock(hashtext('svc_rate:' || p_key));
  DELETE FROM rate_buckets WHERE key_id = p_key AND sec <= now_sec - span;
  SELECT coalesce(sum(n), 0) INTO total FROM rate_buckets WHERE key_id = p_key;
  IF total < p_limit THEN
    INSERT INTO rate_buckets (key_id, sec, n) VALUES (p_key, now_sec, least(p_want, p_limit - total))
      ON CONFLICT (key_id, sec) DO UPDATE SET n = rate_buckets.n + EXCLUDED.n;
    RETURN QUERY SELECT least(p_want, p_limit - total)::integer, 0::bigint;
    RETURN;
  END IF;
  left_n := total;
  FOR b IN SELECT sec, n FROM rate_buckets WHERE key_id = p_key ORDER BY sec LOOP
    left_n := left_n - b.n;
    IF left_n < p_limit THEN
      RETURN QUERY SELECT 0, ((b.sec + span - now_sec) * 1000)::bigint;
      RETURN;
    END IF;
  END LOOP;
  RETURN QUERY SELECT 0, (span * 1000)::bigint;
END $$;
