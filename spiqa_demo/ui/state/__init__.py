"""Per-visitor state (a `gr.State` each): the Paper tab's session, the Across papers flow, their bounded histories."""
