{
  "targets": [
    {
      "target_name": "svc_flock",
      "sources": ["flock.c"]
    }
  ]
}
