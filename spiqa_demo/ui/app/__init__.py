"""The composition root: the app's Blocks (`layout`), its launch options, the start-up warm-up and ZeroGPU preload."""
