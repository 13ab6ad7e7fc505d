"""Reading: inputs as bytes and tokens with their spans (flag strings, MaxText's argv, env files), and the merged YAML config chain an argv starts from."""
