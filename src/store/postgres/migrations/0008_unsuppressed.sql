-- The accept statement checks its recipients against the suppression list itself (one
-- round trip per send): a listed one raises svc_suppressed, which aborts the whole statement.
CREATE FUNCTION svc_unsuppressed(p_workspace text, p_addresses text[])
RETURNS integer LANGUAGE plpgsql AS $$
DECLARE
  listed text[];
BEGIN
  IF cardinality(p_addresses) = 0 THEN
    RETURN 0;
  END IF;
  SELECT array_agg(address) INTO listed FROM suppressions WHERE workspace_id = p_workspace AND address = ANY (p_addresses);
  IF listed IS NOT NULL THEN
    RAISE EXCEPTION USING ERRCODE = 'P0001', MESSAGE = 'svc_suppressed', DETAIL = to_jsonb(listed)::text;
  END IF;
  RETURN 0;
END $$;
