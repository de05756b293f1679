"""Content files: reading, validating, importing and exporting records."""
