"""The app icon (SVG), shipped as package data so an installed wheel finds it."""
