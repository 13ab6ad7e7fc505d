"""What flaglint knows of Tunix: its recipe variables and the MaxText keys it derives from them."""
