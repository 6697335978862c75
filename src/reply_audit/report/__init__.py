"""Report writers: one module per output format, all reading a `ScanResult`."""
