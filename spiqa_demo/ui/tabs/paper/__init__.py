"""The Paper tab: loading a paper, its figures, the chat over it, the SPIQA check."""
