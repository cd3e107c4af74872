//! zyg-driver: the pipeline behind the `zyg` command.
