"""The Error analysis tab: SPIQA result files read, filtered, plotted and compared."""
