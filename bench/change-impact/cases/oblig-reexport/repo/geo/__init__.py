from geo.shapes import Circle, Square

__all__ = ['Circle', 'Square']
