"""Facts: what one file says about replies, extracted with `ast` (see `extract`)."""
