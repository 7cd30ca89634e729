-- Idempotency keys, the per-key rate limit and send quotas, decided in Postgres so that
-- they hold across every daemon on the database.
CREATE TABLE idempotency_keys (
  workspace_id text        NOT NULL,
  key          text        NOT NULL,
  state        text        NOT NULL CHECK (state IN ('running', 'completed')),
  token        text        NOT NULL,
  response     jsonb,
  created_at   timestamptz NOT NULL,
  PRIMARY KEY (workspace_id, key)
);
CREATE INDEX idempotency_keys_age ON idempotency_keys (created_at);

CREATE TABLE rate_windows (
  key_id text          PRIMARY KEY,
  hits   timestamptz[] NOT NULL
);

-- One request in a key's sliding window: counted and allowed while fewer than p_limit are in it;
-- otherwise refused, with the milliseconds until the oldest leaves the window. The row lock makes
-- concurrent requests (from any daemon) take turns.
CREATE FUNCTION svc_rate_hit(p_key text, p_now timestamptz, p_window_ms bigint, p_limit int)
RETURNS TABLE (allowed boolean, retry_after_ms bigint) LANGUAGE plpgsql AS $$
DECLARE
  kept timestamptz[];
BEGIN
  INSERT INTO rate_windows (key_id, hits) VALUES (p_key, '{}') ON CONFLICT (key_id) DO NOTHING;
  PERFORM 1 FROM rate_windows WHERE key_id = p_key FOR UPDATE;
  SELECT coalesce(array_agg(h ORDER BY h), '{}') INTO kept
    FROM rate_windows r, unnest(r.hits) AS h
   WHERE r.key_id = p_key AND h > p_now - p_window_ms * interval '1 millisecond';
  IF cardinality(kept) < p_limit THEN
    UPDATE rate_windows SET hits = kept || p_now WHERE key_id = p_key;
    RETURN QUERY SELECT true, 0::bigint;
  ELSE
    UPDATE rate_windows SET hits = kept WHERE key_id = p_key;
    RETURN QUERY SELECT false, ceil(extract(epoch FROM (kept[1] + p_window_ms * interval '1 millisecond' - p_now)) * 1000)::bigint;
  END IF;
END $$;

CREATE TABLE send_usage (
  workspace_id text    NOT NULL,
  window_key   text    NOT NULL,
  used         integer NOT NULL,
  PRIMARY KEY (workspace_id, window_key)
);

-- Counts p_n sends in every window of p_windows ([{key, limit, window, resets_at}]), or none: a
-- window that would go over raises svc_quota with its details, which aborts the whole statement
-- (the send's records with it).
CREATE FUNCTION svc_debit(p_workspace text, p_n int, p_windows jsonb)
RETURNS integer LANGUAGE plpgsql AS $$
DECLARE
  w jsonb;
  cur integer;
BEGIN
  FOR w IN SELECT * FROM jsonb_array_elements(p_windows) ORDER BY 1 LOOP
    INSERT INTO send_usage (workspace_id, window_key, used) VALUES (p_workspace, w->>'key', 0) ON CONFLICT DO NOTHING;
    SELECT used INTO cur FROM send_usage WHERE workspace_id = p_workspace AND window_key = w->>'key' FOR UPDATE;
    IF (w->>'limit') IS NOT NULL AND cur + p_n > (w->>'limit')::integer THEN
      RAISE EXCEPTION USING ERRCODE = 'P0001', MESSAGE = 'svc_quota', DETAIL = jsonb_build_object('window', w, 'used', cur)::text;
    END IF;
    UPDATE send_usage SET used = cur + p_n WHERE workspace_id = p_workspace AND window_key = w->>'key';
  END LOOP;
  RETURN p_n;
END $$;
