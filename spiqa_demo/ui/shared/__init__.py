"""What two tabs use: the question box, the page viewer, the model panel, handler outputs, SPIQA's images."""
