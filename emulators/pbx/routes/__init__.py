"""One module per endpoint family of spec section 4, plus the ``/_emulator`` control surface."""
