"""Administration: connecting the workspace, the approval policy and roles."""
