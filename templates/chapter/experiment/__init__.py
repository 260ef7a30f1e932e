"""{{title}}: the experiment of chapter {{number}} ({{chapter}})."""
